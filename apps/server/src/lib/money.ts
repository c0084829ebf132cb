/** The API speaks roubles (numbers with up to two decimals); the database keeps integer kopecks. */
export function toKopecks(roubles: number): number {
  return Math.round(roubles * 100);
}

export function toRoubles(kopecks: number): number {
  return kopecks / 100;
}
