// The view the server rendered last, written into the address (the board table's js_on_load,
// after board_table.js; Gradio hands it element and watch), with no request of its own: the
// table's data-address (web/board/address.py, address_marker) replaces the board's parameters;
// entry is the card's (a row's click sets it, the card's close deletes it), so it is kept, but
// on the first rendering, the page's landing, which says which entry it opened.
// The board's parameters are address.PARAMS, filled in by web/board/page.py.
const boardParams = __BOARD_PARAMS__;
let landed = false;
const writeAddress = () => {
  const shown = element.querySelector('[data-address]');
  if (!shown) return;
  const url = new URL(window.location.href);
  const entry = url.searchParams.get('entry');
  for (const name of boardParams) url.searchParams.delete(name);
  for (const [name, value] of new URLSearchParams(shown.dataset.address)) {
    url.searchParams.append(name, value);
  }
  if (landed && entry !== null && !url.searchParams.has('entry')) {
    url.searchParams.set('entry', entry);
  }
  landed = true;
  window.history.replaceState(window.history.state, '', url);
};
writeAddress();
watch('value', writeAddress);
