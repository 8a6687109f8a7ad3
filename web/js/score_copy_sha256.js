// The Score tab's copy button: the file's sha256, as its box shows it, to the clipboard.
() => navigator.clipboard.writeText(document.querySelector('#score-sha256 textarea').value)
