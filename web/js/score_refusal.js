// What the hidden #score-refuse button sends when score_upload_check.js clicks it: the code of
// the file it held back ("size:<bytes>"), or nothing (score_handlers.refused_upload).
() => window.scoreRefusal ?? ''
