// neff report: zoom (wheel) and pan (drag) of every svg[data-zoom] along x; double-click resets.
(function () {
  "use strict";
  document.querySelectorAll("svg[data-zoom]").forEach(function (svg) {
    var vb = svg.viewBox.baseVal, full = { x: vb.x, w: vb.width }, drag = null;
    function set(x, w) {
      w = Math.min(full.w, Math.max(full.w / 1e6, w));
      x = Math.min(full.x + full.w - w, Math.max(full.x, x));
      vb.x = x; vb.width = w;
    }
    function at(ev) { var r = svg.getBoundingClientRect(); return vb.x + (ev.clientX - r.left) / r.width * vb.width; }
    svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var p = at(ev), k = ev.deltaY < 0 ? 0.8 : 1.25;
      set(p - (p - vb.x) * k, vb.width * k);
    }, { passive: false });
    svg.addEventListener("mousedown", function (ev) { drag = { x: ev.clientX, vx: vb.x }; });
    window.addEventListener("mouseup", function () { drag = null; });
    svg.addEventListener("mousemove", function (ev) {
      if (!drag) return;
      var r = svg.getBoundingClientRect();
      set(drag.vx - (ev.clientX - drag.x) / r.width * vb.width, vb.width);
    });
    svg.addEventListener("dblclick", function () { set(full.x, full.w); });
  });
})();
// Load time in ms since navigation, and the first frame after it when the browser draws one:
// scripts/browser-check.sh reads body[data-load-ms] / [data-frame-ms] from the DOM.
window.addEventListener("load", function () {
  document.body.setAttribute("data-load-ms", String(Math.round(performance.now())));
  requestAnimationFrame(function () {
    document.body.setAttribute("data-frame-ms", String(Math.round(performance.now())));
  });
});
