import { concurrencyLimiterContract } from '../testing/concurrencyLimiterContract.js';
import { createInProcessVoiceConcurrencyLimiter } from './inProcessConcurrencyLimiter.js';

// One process: every call of `make` shares the same limiter (as the routes of one API do).
const shared = createInProcessVoiceConcurrencyLimiter();
concurrencyLimiterContract('in-process', (now) =>
  now === undefined ? shared : createInProcessVoiceConcurrencyLimiter({ now }),
);
