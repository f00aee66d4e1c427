//! Pages judged by what renders: within each container of a page (a board card,
//! the console), no two visible siblings overlap, nothing visible sticks out of the
//! container (clipped by its edge), no text is cut by its box, every clock and name is
//! visible and on top (a clock the page leaves out on purpose, `hidden` because it was
//! never read, is not one), and the page does not scroll sideways. Checked at the widths of a
//! desktop, a laptop and a phone.

use super::driver::Browser;

/// Desktop, laptop and phone widths.
pub(crate) const WIDTHS: [u64; 3] = [1920, 1400, 390];

/// Finds every problem of the containers matching `roots` (a CSS selector list); returns
/// one line per problem, empty when the page renders well.
const PROBLEMS: &str = r#"
const problems = [];
const sel = arguments[0];
function shown(el) {
  const r = el.getBoundingClientRect();
  const s = getComputedStyle(el);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && parseFloat(s.opacity) > 0;
}
function name(el) {
  let n = el.tagName.toLowerCase();
  if (el.id) n += '#' + el.id;
  if (typeof el.className === 'string' && el.className.trim()) n += '.' + el.className.trim().split(/\s+/).join('.');
  for (const k of ['match', 'clock', 'square', 'names']) if (el.dataset && el.dataset[k]) n += '[' + k + '=' + el.dataset[k] + ']';
  return n;
}
function overlap(a, b) {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return w > 1 && h > 1;
}
// Inside a scrolling box (a move list) a box out of view is reached by scrolling: not cut.
function scrolls(el, root) {
  for (let p = el.parentElement; p && p !== root; p = p.parentElement) {
    const s = getComputedStyle(p);
    if (/(auto|scroll)/.test(s.overflowX + s.overflowY)) return true;
  }
  return false;
}
const tol = 1;
for (const root of document.querySelectorAll(sel)) {
  if (!shown(root)) continue;
  const rr = root.getBoundingClientRect();
  // HTML boxes only: the shapes inside a piece's SVG overlap by design.
  const all = [root, ...root.querySelectorAll('*')].filter((el) => !(el.closest('svg') && el.tagName.toLowerCase() !== 'svg')).filter(shown);
  for (const el of all) {
    const r = el.getBoundingClientRect();
    const pos = getComputedStyle(el).position;
    if (el !== root && !scrolls(el, root) && (r.left < rr.left - tol || r.right > rr.right + tol || r.top < rr.top - tol || r.bottom > rr.bottom + tol)) {
      problems.push(name(root) + ': ' + name(el) + ' sticks out of it');
    }
    const kids = el.tagName.toLowerCase() === 'svg' ? [] : [...el.children].filter(shown).filter((c) => getComputedStyle(c).position !== 'absolute');
    for (let i = 0; i < kids.length; i++) for (let j = i + 1; j < kids.length; j++) {
      if (overlap(kids[i].getBoundingClientRect(), kids[j].getBoundingClientRect())) {
        problems.push(name(root) + ': ' + name(kids[i]) + ' overlaps ' + name(kids[j]));
      }
    }
    const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (text && pos !== 'absolute' && (el.scrollWidth > el.clientWidth + tol || el.scrollHeight > el.clientHeight + tol) && el.clientWidth > 0 && getComputedStyle(el).display !== 'inline') {
      problems.push(name(root) + ': the text of ' + name(el) + ' is cut (' + el.scrollWidth + '>' + el.clientWidth + ')');
    }
  }
  // Boards side by side stand at the same height.
  const boards = [...root.querySelectorAll('.board')].filter(shown).map((b) => b.getBoundingClientRect());
  for (let i = 1; i < boards.length; i++) {
    const a = boards[i - 1], b = boards[i];
    const side = a.right <= b.left + tol || b.right <= a.left + tol;
    if (side && Math.abs(a.top - b.top) > tol) {
      problems.push(name(root) + ': boards side by side at different heights (' + a.top + ', ' + b.top + ')');
    }
  }
  for (const el of root.querySelectorAll('[data-clock], .clock, .name')) {
    // Left out on purpose (a clock never read): nothing to show, not a clock hidden.
    if (el.closest('[hidden]')) continue;
    if (!shown(el)) { problems.push(name(root) + ': ' + name(el) + ' is hidden'); continue; }
    el.scrollIntoView({ block: 'center', inline: 'center' });
    const r = el.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!top || !(el === top || el.contains(top) || top.contains(el))) {
      problems.push(name(root) + ': ' + name(el) + ' is covered by ' + (top ? name(top) : 'nothing'));
    }
  }
}
if (document.documentElement.scrollWidth > window.innerWidth + tol) {
  problems.push('the page scrolls sideways (' + document.documentElement.scrollWidth + ' > ' + window.innerWidth + ')');
}
window.scrollTo(0, 0);
return problems;
"#;

/// Resizes the window to `width` (the viewport follows) and waits for the page to lay out
/// at that width.
pub(crate) async fn resize(browser: &Browser, width: u64) {
    browser
        .client()
        .set_window_size(u32::try_from(width).expect("a width"), 1000)
        .await
        .expect("the window resized");
    browser
        .wait_for(
            &format!("the page {width} px wide"),
            "return Math.abs(document.documentElement.clientWidth - arguments[0]) <= 40;",
            vec![width.into()],
        )
        .await;
}

/// The problems of `roots` at the current width, as lines.
pub(crate) async fn problems(browser: &Browser, roots: &str) -> Vec<String> {
    let found = browser.eval(PROBLEMS, vec![roots.into()]).await;
    found
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Fails naming every problem of `roots` on `page` at each of [`WIDTHS`] (the window is
/// left at the last one), with a screenshot of each width.
pub(crate) async fn assert_renders(browser: &Browser, page: &str, roots: &str) {
    assert_renders_at(browser, page, roots, &WIDTHS).await;
}

/// [`assert_renders`] at `widths` only.
pub(crate) async fn assert_renders_at(browser: &Browser, page: &str, roots: &str, widths: &[u64]) {
    let mut all = Vec::new();
    for &width in widths {
        resize(browser, width).await;
        let found = problems(browser, roots).await;
        browser.screenshot(&format!("{page}-{width}")).await;
        all.extend(
            found
                .into_iter()
                .map(|p| format!("{page} at {width} px: {p}")),
        );
    }
    assert!(
        all.is_empty(),
        "{} problems:\n{}",
        all.len(),
        all.join("\n")
    );
}
