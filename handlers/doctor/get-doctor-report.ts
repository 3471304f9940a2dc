import { doctorReport } from '../../core/doctor/doctor';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/doctor */
export const handler = httpHandler(async (_event, app) => json(await doctorReport(app.deps)));
