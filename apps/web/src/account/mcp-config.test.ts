import { describe, expect, it } from 'vitest';
import { mcpClientConfig, mcpEndpoint } from './mcp-config.ts';

describe('mcp-config', () => {
  it("names /mcp on the page's own origin", () => {
    expect(mcpEndpoint('http://localhost:3000')).toBe('http://localhost:3000/mcp');
    expect(mcpEndpoint('https://sponge.example.org/')).toBe('https://sponge.example.org/mcp');
  });

  it('gives a configuration that sends the key as a bearer header', () => {
    const config = JSON.parse(mcpClientConfig('https://sponge.example.org')) as {
      mcpServers: { sponge: { url: string; headers: Record<string, string> } };
    };
    expect(config.mcpServers.sponge).toEqual({
      url: 'https://sponge.example.org/mcp',
      headers: { Authorization: 'Bearer ak_…' },
    });
    expect(mcpClientConfig('http://localhost:3000', 'ak_abc')).toContain('"Authorization": "Bearer ak_abc"');
  });
});
