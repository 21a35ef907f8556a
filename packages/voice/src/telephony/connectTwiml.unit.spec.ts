import { describe, expect, it } from 'vitest';
import { connectTwiml, websocketBaseOf } from './connectTwiml.js';

describe('connectTwiml', () => {
  it('streams the call to the media WebSocket under the public base URL', () => {
    expect(
      connectTwiml({ publicBaseUrl: 'https://parley.example.com/', callSid: 'CA1', parameters: {} }),
    ).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect>' +
        '<Stream url="wss://parley.example.com/api/v1/voice/media/CA1"/></Connect></Response>',
    );
  });

  it('keeps a path prefix, maps http to ws and escapes parameters', () => {
    expect(
      connectTwiml({
        publicBaseUrl: 'http://127.0.0.1:3000/prefix',
        callSid: 'CA 2',
        parameters: { projectId: 'p<1>', sessionId: 'a&"b\'' },
      }),
    ).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect>' +
        '<Stream url="ws://127.0.0.1:3000/prefix/api/v1/voice/media/CA%202">' +
        '<Parameter name="projectId" value="p&lt;1&gt;"/>' +
        '<Parameter name="sessionId" value="a&amp;&quot;b&apos;"/>' +
        '</Stream></Connect></Response>',
    );
  });

  it('converts the scheme whatever its case', () => {
    expect(websocketBaseOf('HTTPS://Host.example')).toBe('wss://Host.example');
  });
});
