/**
 * Hands a fetched file to the browser's downloads: an object URL clicked through a link with
 * `download`, then released. Files the API serves behind the token (a snapshot, the audit CSV) are
 * fetched with the Authorization header first, since a plain link cannot carry it.
 */
export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // after the click has started the download
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
