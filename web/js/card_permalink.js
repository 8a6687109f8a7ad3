// The card's script (its gr.HTML's js_on_load; Gradio hands it element and watch): its
// permalink (the card's a.permalink, a query) shown and linked as the full URL it is on this
// page, the page's own origin and path (which the server cannot know behind a proxy).
const fullLinks = () => {
  for (const link of element.querySelectorAll('a.permalink')) {
    link.href = link.href;
    link.textContent = link.href;
  }
};
fullLinks();
watch('value', fullLinks);
