// A tab's select runs this: every chart re-measures its block. A chart as wide as its block
// (width="container") measures it when drawn and again on a window's resize only, so one drawn
// inside a hidden tab (the size chart after a track switch, any chart after a phone turned
// while another tab showed) stayed 0 px wide when its tab was shown.
() => requestAnimationFrame(() => window.dispatchEvent(new Event('resize')))
