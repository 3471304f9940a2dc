import { Logger, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { config } from './config';

/**
 * The logger, knowing whether it writes INFO lines: its `level`, like every call of it, reads the
 * environment, which a request line that is dropped should not pay for. Known again whenever the
 * level is set.
 */
class ServerLogger extends Logger {
  infoLogged = this.level <= LogLevelThreshold.INFO;

  override setLogLevel(level: Parameters<Logger['setLogLevel']>[0]): void {
    super.setLogLevel(level);
    this.infoLogged = this.level <= LogLevelThreshold.INFO;
  }
}

let instance: ServerLogger | undefined;

/** One JSON-lines logger per process. Never log secrets or query strings (spec 01 Authentication 6). */
export function logger(): Logger {
  instance ??= new ServerLogger({
    serviceName: 'task-server',
    logLevel: config().logLevel as 'INFO',
  });
  return instance;
}

/** Whether INFO lines are written (see ServerLogger). */
export function logsInfo(): boolean {
  logger();
  return instance!.infoLogged;
}
