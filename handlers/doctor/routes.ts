import { doctorRepairSchema, doctorReportSchema } from '../../core/doctor/doctor';
import type { Route } from '../route';

/** The integrity checks and their repairs (core/doctor/). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/doctor', handler: 'doctor/get-doctor-report', response: doctorReportSchema },
  { method: 'POST', path: '/api/doctor/repair', handler: 'doctor/repair-doctor-findings', response: doctorRepairSchema },
];
