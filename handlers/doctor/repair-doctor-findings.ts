import { repairDoctorFindings } from '../../core/doctor/doctor';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/doctor/repair {kinds?, dry_run?} */
export const handler = httpHandler(async (event, app) =>
  json(await repairDoctorFindings(app.deps, event.body, { defaultLeaseSeconds: app.config.taskLeaseSeconds })),
);
