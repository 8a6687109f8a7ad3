// The Score tab's own look at a chosen or dropped file, before Gradio sends it (the page's
// load runs it once). A file the Space refuses unread (over its limit, ledger.submission_file;
// any name is read by its bytes) is held back and the hidden #score-refuse button clicked with
// a code, "size:<bytes>" (score_refusal.js hands it over), which the server words under the
// upload (score_handlers.refused_upload). Gradio's own checks would show a toast instead (which
// piles up, then vanishes), and for a file over the limit open the upload's progress stream of
// a file it never sends (a 404 in the console). Listeners of the document's capture phase run
// before the upload's own, so those never see the file.
// The limit, in bytes, is ledger.submission_file.LIMIT_BYTES, filled in by web/score_page.py.
() => {
  if (window.scoreUploadCheck) return;
  window.scoreUploadCheck = true;
  const limit = __LIMIT_BYTES__;
  const refusal = (files) => {
    for (const file of files) {
      if (file.size > limit) return "size:" + file.size;
    }
    return null;
  };
  const refuse = (code) => {
    window.scoreRefusal = code;
    document.querySelector("#score-refuse")?.click();
  };
  document.addEventListener("change", (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || input.type !== "file"
        || !input.closest("#score-upload")) return;
    const code = refusal(Array.from(input.files || []));
    if (code === null) return;
    event.stopImmediatePropagation();
    input.value = "";
    refuse(code);
  }, true);
  document.addEventListener("drop", (event) => {
    const zone = event.target instanceof Element && event.target.closest("#score-upload");
    if (!zone || !event.dataTransfer) return;
    const code = refusal(Array.from(event.dataTransfer.files));
    if (code === null) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    // The upload counts drags in and out to light its drop zone: let it see this one leave.
    event.target.dispatchEvent(new DragEvent("dragleave", {bubbles: true}));
    refuse(code);
  }, true);
}
