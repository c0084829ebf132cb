/** The total players online over all servers, for the home page (filled in by the servers feature). */
export function TotalOnline() {
  return null;
}
