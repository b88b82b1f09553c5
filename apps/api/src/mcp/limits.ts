/**
 * The per-key rate limit of /mcp (SPEC §7d): a burst of 60 calls, then 240 a minute (one every
 * 250 ms), for all API processes on the database together (rate-limit.ts). An agent reading a library steps far slower; a loop that does not
 * stop is held back. `MCP_CALLS_PER_MINUTE` changes the rate (config.ts), the burst stays.
 */
export const MCP_BURST = 60;
export const MCP_CALLS_PER_MINUTE = 240;
