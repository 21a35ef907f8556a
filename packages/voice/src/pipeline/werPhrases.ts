/**
 * The fixed phrases of the recognition accuracy test (pipeline/recognition.int.spec.ts) and the
 * voice bench: what a caller says to a support agent, spoken by espeak-ng (en-us, 160 wpm) and
 * carried as 8 kHz µ-law like a phone call.
 */
export const WER_PHRASES: readonly string[] = [
  'what is the weather in paris',
  'i want to book a table for two',
  'please cancel my order',
  'what time do you open tomorrow',
  'i would like to speak to an agent',
  'can you check my account balance',
  'my package has not arrived yet',
  'how much does the premium plan cost',
  'please send me a refund',
  'i need to change my password',
  'what is the status of my ticket',
  'thank you very much goodbye',
];
