// The bank-details page (claim-page.ts): the IBAN is grouped in fours, in capitals, as it is typed,
// and the caret stays after the character just typed. The page works without it (the server accepts
// the IBAN with or without spaces, in any case). The BIC field is always shown, never hidden here:
// its label says whether this claim needs it (required for a claim paid in another currency than EUR,
// else only for an IBAN outside the EEA), and the server checks it (payouts' checkSepaAccount).
(function () {
  'use strict';
  var input = document.getElementById('f-iban');
  if (!input) return;
  var alnum = /[^0-9A-Za-z]/g;
  input.addEventListener('input', function () {
    var caret = input.selectionStart === null ? input.value.length : input.selectionStart;
    var typed = input.value.slice(0, caret).replace(alnum, '').length;
    var raw = input.value.replace(alnum, '').toUpperCase().slice(0, 34);
    var grouped = raw.replace(/(.{4})(?=.)/g, '$1 ');
    if (grouped === input.value) return;
    input.value = grouped;
    var position = Math.min(typed + Math.floor(Math.max(typed - 1, 0) / 4), grouped.length);
    if (document.activeElement === input) input.setSelectionRange(position, position);
  });
})();
