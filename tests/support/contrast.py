"""WCAG contrast of every text a page shows, computed in the browser (issue 31, item 3: the demo
banner's text was pale on a cream box in dark mode, where axe saw nothing wrong).

``CONTRAST_JS`` walks every text the page renders (text nodes, an input's value or its
placeholder, a chart's SVG text) and computes, from Chromium's computed styles, the colour it is
drawn in (its alpha and every ancestor's opacity blended in) against the background it is drawn
on (the background colours of its ancestors, composited from the first opaque one; for a chart's
SVG text, the chart's own background). A colour is read by painting it on a 1-pixel canvas, so
any CSS colour syntax (``oklch()``, ``color-mix()``) is read as the browser draws it. The ratio
is WCAG 2.2's (relative luminance of sRGB); the floor is AA's, 4.5:1, or 3:1 for large text
(24 px, or 18.66 px bold). What WCAG 1.4.3 exempts is skipped: text not rendered, visually
hidden text, the text of a disabled control.

``contrast_problems(page, where)`` runs it and words each text under its floor, once per
element, colour and background.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

AA, AA_LARGE = 4.5, 3.0

CONTRAST_JS = """(floors) => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext('2d', {willReadFrequently: true});
    const rgba = (css) => {  // any CSS colour, as the browser paints it: [r, g, b, a] 0-1
        if (!css || css === 'none') return null;
        ctx.clearRect(0, 0, 1, 1);
        ctx.fillStyle = '#00000000';
        ctx.fillStyle = css;
        ctx.fillRect(0, 0, 1, 1);
        const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
        return [r / 255, g / 255, b / 255, a / 255];
    };
    const over = (top, under) => {  // top (with its alpha) composited over an opaque colour
        const a = top[3];
        return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat(1);
    };
    const luminance = (c) => {
        const lin = c.slice(0, 3).map(v => v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    };
    const ratio = (a, b) => {
        const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
        return (hi + 0.05) / (lo + 0.05);
    };
    const hex = (c) => '#' + c.slice(0, 3).map(v => Math.round(v * 255).toString(16)
        .padStart(2, '0')).join('');
    const describe = (el) => {
        let text = el.tagName.toLowerCase();
        if (el.id) return text + '#' + el.id;
        const cls = typeof el.className === 'string' ? el.className.trim().split(/\\s+/)[0] : '';
        if (cls) text += '.' + cls;
        const owner = el.parentElement?.closest('[id]');
        return owner ? `#${owner.id} ${text}` : text;
    };
    // The background a text is drawn on: its SVG chart's own, else its ancestors'.
    const background = (el) => {
        const layers = [];
        const svg = el.closest('svg');
        if (svg) {
            const rect = svg.querySelector(':scope > rect, :scope > g > rect.background');
            const fill = rect && rgba(getComputedStyle(rect).fill);
            if (fill && fill[3] > 0) layers.push(fill);
        }
        for (let node = el; node && layers.at(-1)?.[3] !== 1; node = node.parentElement) {
            const colour = rgba(getComputedStyle(node).backgroundColor);
            if (colour && colour[3] > 0) layers.push(colour);
        }
        let colour = layers.at(-1)?.[3] === 1 ? layers.pop() : [1, 1, 1, 1];
        while (layers.length) colour = over(layers.pop(), colour);
        return colour;
    };
    const opacity = (el) => {
        let value = 1;
        for (let node = el; node; node = node.parentElement) {
            value *= parseFloat(getComputedStyle(node).opacity || '1');
        }
        return value;
    };
    const shown = (el) => {
        if (!el.getClientRects().length) return false;
        const box = el.getBoundingClientRect();
        if (box.width < 2 || box.height < 2) return false;  // visually hidden (1 px, clipped)
        const style = getComputedStyle(el);
        if (style.visibility !== 'visible' || opacity(el) < 0.05) return false;
        return !el.closest(':disabled, [aria-disabled=true], [inert]');
    };
    const found = [];
    const check = (el, text, css) => {
        if (!shown(el)) return;
        const style = getComputedStyle(el);
        const bg = background(el);
        const drawn = rgba(css);
        if (!drawn) return;
        const fg = over([...drawn.slice(0, 3), drawn[3] * opacity(el)], bg);
        const size = parseFloat(style.fontSize);
        const bold = parseInt(style.fontWeight, 10) >= 700;
        const large = size >= 24 || (size >= 18.66 && bold);
        const needed = large ? floors[1] : floors[0];
        const value = ratio(fg, bg);
        if (value < needed) {
            found.push({text: text.slice(0, 60), where: describe(el), ratio: value, needed,
                        fg: hex(fg), bg: hex(bg), size});
        }
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent.trim();
        const el = node.parentElement;
        if (!text || !el || el.closest('script, style, noscript, template, title')) continue;
        const style = getComputedStyle(el);
        check(el, text, el.closest('svg') ? style.fill : style.color);
    }
    for (const el of document.querySelectorAll('input, textarea')) {
        if (['hidden', 'file', 'checkbox', 'radio', 'range', 'color'].includes(el.type)) continue;
        if (el.value) check(el, el.value, getComputedStyle(el).color);
        else if (el.placeholder) {
            check(el, el.placeholder, getComputedStyle(el, '::placeholder').color);
        }
    }
    return found;
}"""


def contrast_problems(page: Page) -> list[str]:
    """Each text of ``page`` under WCAG AA's contrast, once per element, colour and background:
    "1.03:1 < 4.5:1: 'Demo mode.' (#demo-banner strong, 14 px) #f3f4f6 on #fff7e0"."""
    found: list[dict[str, Any]] = page.evaluate(CONTRAST_JS, [AA, AA_LARGE])
    seen: set[tuple[str, str, str]] = set()
    problems = []
    for f in found:
        key = (f["where"], f["fg"], f["bg"])
        if key in seen:
            continue
        seen.add(key)
        problems.append(
            f"{f['ratio']:.2f}:1 < {f['needed']:g}:1: {f['text']!r} ({f['where']}, "
            f"{f['size']:g} px) {f['fg']} on {f['bg']}"
        )
    return problems
