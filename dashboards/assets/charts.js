// Draws every chart on the page from the JSON spec embedded beside it (no network: plotly.min.js is bundled).
(function () {
  function draw() {
    document.querySelectorAll("div.chart[data-spec]").forEach(function (element) {
      var source = document.getElementById(element.dataset.spec);
      var spec = JSON.parse(source.textContent);
      var layout = Object.assign({
        margin: { l: 60, r: 10, t: 30, b: 50 }, font: { size: 12 }, hovermode: "x unified",
        legend: { orientation: "h", y: -0.25 }
      }, spec.layout);
      Plotly.newPlot(element, spec.data, layout, { responsive: true, displaylogo: false });
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", draw); } else { draw(); }
})();
