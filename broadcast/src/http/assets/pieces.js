// Chess pieces drawn for bugbridge: simple geometric SVG shapes on a 45x45 grid.
// window.BBPieces.svg(letter) returns an <svg> string; uppercase = White, lowercase = Black.
(function () {
  "use strict";
  const shapes = {
    p: '<circle cx="22.5" cy="13" r="5.5"/>' +
       '<path d="M17 21h11l-2 5c3 2 6 6 6.5 11H12.5c.5-5 3.5-9 6.5-11z"/>' +
       '<rect x="11" y="36" width="23" height="4" rx="1.5"/>',
    r: '<path d="M11 8h5v4h4V8h5v4h4V8h5v8l-3 3v13l3 3v1H11v-1l3-3V19l-3-3z"/>' +
       '<rect x="9" y="36" width="27" height="4" rx="1.5"/>' +
       '<path class="line" d="M14 19h17M14 32h17" fill="none"/>',
    n: '<path d="M13 37c0-6 3-10 8-13-3 0-6 1-8 3l-3-3c1-4 4-8 7-10l1-5 3 4c7 1 12 7 12 16v8z"/>' +
       '<rect x="10" y="36" width="25" height="4" rx="1.5"/>' +
       '<circle class="eye" cx="18" cy="15" r="1.3"/>',
    b: '<circle cx="22.5" cy="7.5" r="2.5"/>' +
       '<path d="M22.5 10c5 4 8 8 8 12.5 0 4-3 6.5-8 6.5s-8-2.5-8-6.5c0-4.5 3-8.5 8-12.5z"/>' +
       '<path d="M16 29h13l2 7H14z"/>' +
       '<rect x="10" y="36" width="25" height="4" rx="1.5"/>' +
       '<path class="line" d="M25 15l-5 6" fill="none"/>',
    q: '<circle cx="8" cy="11" r="2.3"/><circle cx="15" cy="8" r="2.3"/><circle cx="22.5" cy="7" r="2.3"/>' +
       '<circle cx="30" cy="8" r="2.3"/><circle cx="37" cy="11" r="2.3"/>' +
       '<path d="M8 13l5 17h19l5-17-7 9-2-13-5 12-5-12-2 13z"/>' +
       '<path d="M12 30h21l1 6H11z"/>' +
       '<rect x="10" y="36" width="25" height="4" rx="1.5"/>',
    k: '<path d="M21 3h3v3h3v3h-3v4h-3V9h-3V6h3z"/>' +
       '<path d="M22.5 14c-3 0-4 3-3.5 5-3-3-10-3-11.5 2-1.5 5 3 8 5 10h20c2-2 6.5-5 5-10-1.5-5-8.5-5-11.5-2 .5-2-.5-5-3.5-5z"/>' +
       '<path d="M12.5 31h20l1 5h-22z"/>' +
       '<rect x="10" y="36" width="25" height="4" rx="1.5"/>',
  };
  function svg(letter) {
    const role = letter.toLowerCase();
    const body = shapes[role];
    if (!body) return "";
    const color = letter === role ? "black" : "white";
    return '<svg class="piece-svg ' + color + '" viewBox="0 0 45 45" aria-hidden="true">' + body + "</svg>";
  }
  const names = { p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king" };
  function name(letter) {
    const role = letter.toLowerCase();
    return (letter === role ? "black " : "white ") + (names[role] || "piece");
  }
  window.BBPieces = { svg, name };
})();
