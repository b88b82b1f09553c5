/** Pages joined as the API joins them (a blank line between two), with the offsets it reports. */
export function joined(pages: string[]): { text: string; pageStarts: number[] } {
  const pageStarts: number[] = [];
  let text = '';
  pages.forEach((p, i) => {
    if (i > 0) text += '\n\n';
    pageStarts.push(text.length);
    text += p;
  });
  return { text, pageStarts };
}
