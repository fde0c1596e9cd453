/** Print one benchmark figure as the JSON line every bench uses. */
export function report(bench: string, value: number, unit: string): void {
  const rounded = Math.abs(value) >= 100 ? Math.round(value) : Number(value.toPrecision(4));
  process.stdout.write(`${JSON.stringify({ bench, value: rounded, unit })}\n`);
}
