import { liveLabel, liveState } from '../live';

/** The stream's state, announced politely when it changes ("Live", "Reconnecting…", "Offline"). */
export function LiveStatus() {
  return (
    <span role="status" class={`live-status live-${liveState.value}`} aria-label={`Connection: ${liveLabel[liveState.value]}`}>
      {liveLabel[liveState.value]}
    </span>
  );
}
