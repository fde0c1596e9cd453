/** "Did you mean …?" for a mistyped name: the one candidate closest to it, if any is close enough. */

/**
 * The candidate within `maxDistance` edits (insert, delete, replace, swap two neighbours) of `word`;
 * ties: the first. Failing that, the one candidate that begins with all of the word but its last
 * letter, five letters at least (`strategy` → `strategies`: a singular for a plural is three edits).
 */
export function closestName(word: string, candidates: Iterable<string>, maxDistance = 2): string | undefined {
  const w = word.toLowerCase();
  const list = [...candidates];
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const c of list) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  if (best !== undefined || w.length < 6) return best;
  const stem = w.slice(0, -1);
  const extending = list.filter((c) => c.toLowerCase().startsWith(stem));
  return extending.length === 1 ? extending[0] : undefined;
}

/** Optimal string alignment distance: a transposed pair counts one edit, as a typo makes it. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * `'; did you mean "x"?'` for the closest name, or nothing: every message of the project that
 * suggests a name ends with it, in this one form.
 */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const near = closestName(word, candidates);
  return near === undefined ? '' : `; did you mean "${near}"?`;
}
