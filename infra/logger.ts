import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config';

let instance: Logger | undefined;

/** One JSON-lines logger per process. Never log secrets or query strings (spec 01 Authentication 6). */
export function logger(): Logger {
  instance ??= new Logger({
    serviceName: 'task-server',
    logLevel: config().logLevel as 'INFO',
  });
  return instance;
}
