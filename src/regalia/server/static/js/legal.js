// The legal actions of a state message written out. The server lists every legal action as
// text except Regicide's Step 4 discards (up to 255 sets of a hand), which it sends as
// { from: the hand's cards, at_least: the total to reach, minimal: option minimal_discard }:
// every non-empty set of those cards totalling at least at_least is legal; with minimal,
// only the sets in which every card is needed (rules 1.8, 3.R10). Same texts as the server's
// gamekit.expand_discards: each set once, cards in the order of `from`.
import { cardValue } from "./cards.js";

export function expandDiscards(d) {
  if (!d) return [];
  const cards = d.from;
  const values = cards.map(cardValue);
  const out = new Set();
  for (let m = 1; m < 1 << cards.length; m++) {
    let total = 0;
    let least = Infinity;
    const chosen = [];
    cards.forEach((c, i) => {
      if (m & (1 << i)) {
        total += values[i];
        least = Math.min(least, values[i]);
        chosen.push(c);
      }
    });
    if (total >= d.at_least && !(d.minimal && total - least >= d.at_least)) out.add("discard " + chosen.join(" "));
  }
  return [...out];
}

export function legalTexts(msg) {
  return (msg.legal || []).concat(expandDiscards(msg.discards));
}
