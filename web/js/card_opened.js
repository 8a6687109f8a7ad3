// Once a row's card is open: its box scrolled into view, as little as it takes.
() => document.getElementById('entry-card-box')?.scrollIntoView({block: 'nearest'})
