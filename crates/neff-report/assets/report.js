// neff report: zoom (wheel) and pan (drag) of each timeline along its time axis; double-click
// resets. The boxes sit in g.zoom, scaled along x only; the axis labels are redrawn.
(function () {
  "use strict";
  function ns(v) {
    var a = Math.abs(v);
    if (a < 1e3) return v.toFixed(0) + " ns";
    if (a < 1e6) return (v / 1e3).toFixed(2) + " \u00b5s";
    if (a < 1e9) return (v / 1e6).toFixed(2) + " ms";
    return (v / 1e9).toFixed(3) + " s";
  }
  document.querySelectorAll("svg.timeline[data-zoom]").forEach(function (svg) {
    var d = svg.dataset, t0 = +d.t0, t1 = +d.t1, px = +d.plotX, pw = +d.plotW;
    var width = svg.viewBox.baseVal.width, group = svg.querySelector("g.zoom");
    var ticks = svg.querySelectorAll("g.axis text.tick"), k = 1, tx = 0, drag = null;
    function draw() {
      k = Math.max(1, Math.min(1e6, k));
      tx = Math.min(0, Math.max(pw - pw * k, tx));
      group.setAttribute("transform", "translate(" + tx + ",0) scale(" + k + ",1)");
      ticks.forEach(function (t, i) {
        var x = pw * i / (ticks.length - 1);
        t.textContent = ns((x - tx) / k / pw * (t1 - t0));
      });
    }
    function plotX(ev) {
      var r = svg.getBoundingClientRect();
      return (ev.clientX - r.left) / r.width * width - px;
    }
    svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var x = plotX(ev), f = ev.deltaY < 0 ? 1.25 : 0.8;
      tx = x - (x - tx) * f; k *= f; draw();
    }, { passive: false });
    svg.addEventListener("mousedown", function (ev) { drag = { x: plotX(ev), tx: tx }; ev.preventDefault(); });
    window.addEventListener("mouseup", function () { drag = null; });
    svg.addEventListener("mousemove", function (ev) {
      if (drag) { tx = drag.tx + plotX(ev) - drag.x; draw(); }
    });
    svg.addEventListener("dblclick", function () { k = 1; tx = 0; draw(); });
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
