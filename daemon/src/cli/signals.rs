//! Shutdown signals: Ctrl-C (SIGINT) and SIGTERM, whichever comes first.

/// Completes on SIGINT or SIGTERM.
pub(crate) async fn terminated() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                // Both are cancel-safe: a signal not yet delivered stays pending.
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
