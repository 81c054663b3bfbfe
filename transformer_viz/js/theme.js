// The page stays light, whatever the visitor's system setting or a `?__theme=dark` link asks: the figures' colour
// scales, a projector in a lit classroom and the slides' downloads are all drawn on white (docs/design-notes.md).
//
// Gradio darkens a page by putting the class `dark` on <body>: when it starts, from `?__theme=dark` or, without
// one, from `prefers-color-scheme: dark`, and again whenever the system setting changes. The class is taken off at
// once each time it comes: a MutationObserver's callback runs before the browser paints again.
'use strict';

/** Keeps the class `dark` off `element`: takes it off now and whenever it is put back; returns the observer. */
function pinLight(element) {
  const lighten = () => {
    if (element.classList.contains('dark')) element.classList.remove('dark');
  };
  lighten();
  const observer = new MutationObserver(lighten);
  observer.observe(element, {attributes: true, attributeFilter: ['class']});
  return observer;
}

if (typeof module !== 'undefined') module.exports = {pinLight};
else if (document.body) pinLight(document.body);
else document.addEventListener('DOMContentLoaded', () => pinLight(document.body));
