// Progressive enhancement for the portal and consoles: copy buttons, confirmations, the CSRF header
// for htmx requests, and charts from data embedded as JSON. Every page works without it, except
// the live preview and the charts (each shows its data in a table too).
(function () {
  'use strict';
  var csrf = document.body.getAttribute('data-csrf');
  document.body.addEventListener('htmx:configRequest', function (event) {
    if (csrf) event.detail.headers['X-CSRF-Token'] = csrf;
  });
  document.addEventListener('click', function (event) {
    var button = event.target.closest('[data-copy]');
    if (!button) return;
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source) return;
    var text = source.textContent.trim();
    var done = function () {
      var status = document.getElementById(button.getAttribute('data-copy') + '-status');
      if (status) status.textContent = button.getAttribute('data-copied') || 'Copied';
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, function () {});
    else {
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      try {
        document.execCommand('copy');
        done();
      } catch (e) {
        /* the key stays selected */
      }
    }
  });
  document.addEventListener('submit', function (event) {
    var message = event.target.getAttribute('data-confirm');
    if (message && !window.confirm(message)) event.preventDefault();
  });
  window.addEventListener('DOMContentLoaded', function () {
    if (!window.Chart) return;
    document.querySelectorAll('canvas[data-chart]').forEach(function (canvas) {
      var spec = JSON.parse(document.getElementById(canvas.getAttribute('data-chart')).textContent);
      new window.Chart(canvas, spec);
    });
  });
})();
