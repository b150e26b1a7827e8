/** Issue 25: per-platform, per-corridor daily volume limits (REF DAILY_VOLUME_LIMIT_EXCEEDED). No routes: the operator sets limits. */
export { withinDailyVolume, volumeClaimOf, setDailyVolumeLimit, type DailyVolumeLimitView } from './daily-volume.service.js';
export { type VolumeClaim } from './daily-volume.model.js';
