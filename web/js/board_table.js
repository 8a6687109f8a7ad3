// The board table's script (its gr.HTML's js_on_load; Gradio hands it element and trigger): a
// header click asks the server to sort by it, a method (or its row) asks for its card and puts
// ?entry= in the address (the rest of the address is the view's, which board_address.js, run
// after this one, writes after each rendering). Everything else is decided on the server
// (web/board/table.py).
element.addEventListener('click', (event) => {
  const header = event.target.closest('button[data-sort]');
  if (header) { trigger('click', {sort: header.dataset.sort}); return; }
  if (event.target.closest('a')) return;
  const row = event.target.closest('[data-entry]');
  if (!row) return;
  const url = new URL(window.location.href);
  url.searchParams.set('entry', row.dataset.entry);
  window.history.replaceState(window.history.state, '', url);
  trigger('select', {entry: row.dataset.entry});
});
