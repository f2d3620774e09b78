/**
 * Start-up milestones as User Timing marks (`performance.getEntriesByType('mark')`, names
 * `hark:<step>`), so the desktop benchmark and anyone in the inspector can see where a launch spends
 * its time. Start-up only: a mark per step, never per event.
 */
export function mark(step: string): void {
  try {
    performance.mark(`hark:${step}`);
  } catch {
    // No User Timing (an old engine, a test environment): the milestones are only for reading.
  }
}
