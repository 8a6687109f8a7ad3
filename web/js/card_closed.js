// The card's close: its entry left out of the address (the rest is the board's view).
() => {
  const url = new URL(window.location.href);
  url.searchParams.delete('entry');
  window.history.replaceState(null, '', url);
}
