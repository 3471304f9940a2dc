/**
 * An instant the server sent as ISO 8601, shown in the reader's own time zone and locale, the ISO text
 * kept in the datetime attribute (for copying and for assistive technology). A date without a time
 * of day is shown as that calendar date, not shifted by the reader's time zone.
 */
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export function localTimeText(iso: string): string {
  if (DATE_ONLY.test(iso)) {
    const [year, month, day] = iso.split('-').map(Number);
    return new Date(year!, month! - 1, day!).toLocaleDateString();
  }
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toLocaleString();
}

export function LocalTime({ iso }: { iso: string }) {
  return <time dateTime={iso}>{localTimeText(iso)}</time>;
}
