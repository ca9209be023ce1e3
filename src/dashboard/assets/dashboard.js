// scrapegate dashboard: draws the charts whose figures the page carries in its #dashboard-charts
// JSON block (the page's Content-Security-Policy runs no inline script, and needs none).
(function () {
  'use strict';
  var block = document.getElementById('dashboard-charts');
  if (!block || typeof Chart === 'undefined') return;
  var palette = ['#0b57d0', '#b3261e', '#146c2e', '#8a4b00', '#6f3cb8', '#00696f', '#5f6368', '#a0427c'];
  var specs = JSON.parse(block.textContent);
  specs.forEach(function (spec) {
    var canvas = document.getElementById(spec.canvas);
    if (!canvas) return;
    var many = spec.kind !== 'line';
    new Chart(canvas, {
      type: spec.kind,
      data: {
        labels: spec.labels,
        datasets: [{
          label: spec.label,
          data: spec.values,
          backgroundColor: many ? spec.values.map(function (_v, i) { return palette[i % palette.length]; }) : 'rgba(11, 87, 208, 0.15)',
          borderColor: many ? '#ffffff' : '#0b57d0',
          borderWidth: many ? 1 : 2,
          fill: !many,
          pointRadius: 3,
          tension: 0.2,
        }],
      },
      options: {
        // Drawn at once: no animation to wait for, nothing moving for people who asked for less motion.
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: spec.kind === 'doughnut', position: 'bottom' } },
        scales: spec.kind === 'doughnut' ? {} : { y: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    canvas.setAttribute('data-drawn', 'true');
  });
})();
