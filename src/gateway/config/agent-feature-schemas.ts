/**
 * The parts of `operator.json` that set up the agent's own features: its browser, this machine's
 * desktop and subagents, with the overrides a profile may give of them. Kept apart from
 * `schema.ts`, which assembles them with the rest.
 */
import * as z from 'zod';
import { defaultSubagentSettings } from '../../agent/subagents/subagent-settings.ts';
import { defaultBrowserSettings } from '../../browser/browser-settings.ts';
import { defaultDesktopSettings } from '../../desktop/desktop-settings.ts';

/** A path from the root. */
export const absolutePath = z.string().regex(/^\//, 'expected an absolute path');

const browserDefaults = defaultBrowserSettings;

/** `browser` in operator.json (descriptions before defaults, so a profile's overrides keep them). */
export const browserSchema = z.strictObject({
  enabled: z.boolean().describe('Whether the agent gets the browser tool (offered even without a chromium on the machine; it then says so when called).').default(browserDefaults.enabled),
  executablePath: absolutePath.describe("The browser to run (default: Playwright's own lookup, then /usr/bin/chromium). A path that does not exist is reported, never replaced.").optional(),
  headless: z.boolean().describe('Run without a window (needs no display).').default(browserDefaults.headless),
  useScreenshot: z.boolean().describe('Each model call gets a screenshot of the active tab (more tokens).').default(browserDefaults.useScreenshot),
  useAccessibility: z.boolean().describe('Each model call gets the aria snapshot of the active tab, with element refs.').default(browserDefaults.useAccessibility),
  viewport: z
    .strictObject({ width: z.int().min(320).max(3840), height: z.int().min(240).max(2160) })
    .describe('Size of the page in CSS pixels.')
    .default(browserDefaults.viewport),
  idleTimeoutSeconds: z.int().min(10).max(86_400).describe("A conversation's browser closes after this many seconds without a browser action.").default(browserDefaults.idleTimeoutSeconds),
  maxContexts: z.int().min(1).max(200).describe('Conversations with a browser open at once; a new one closes the one idle longest.').default(browserDefaults.maxContexts),
  allowUrls: z.array(z.string().min(1)).describe('When not empty, only these sites: "example.com", "*.example.com" or "https://example.com/docs/".').default([]),
  blockUrls: z.array(z.string().min(1)).describe('Sites never opened (same patterns).').default([]),
});

/** `desktop` in operator.json: this machine's X display, off unless turned on. */
export const desktopSchema = z.strictObject({
  enabled: z.boolean().describe("Whether the agent gets the desktop tool (drives this machine's display; offered only to the desktop tool group).").default(defaultDesktopSettings.enabled),
  display: z
    .string()
    .regex(/^[A-Za-z0-9.-]*:\d+(\.\d+)?$/, 'expected an X display such as ":99" or "host:0.0"')
    .describe('The X display to drive (default: the DISPLAY the gateway was started with; without either the tool is not offered).')
    .optional(),
  useScreenshot: z.boolean().describe('Each model call gets a screenshot of the screen while the desktop is in use.').default(defaultDesktopSettings.useScreenshot),
  idleTimeoutSeconds: z
    .int()
    .min(10)
    .max(86_400)
    .describe("The desktop's state stops riding along after this many seconds without a desktop action.")
    .default(defaultDesktopSettings.idleTimeoutSeconds),
});

/** `subagents` in operator.json: how many children an agent may start, how deep, and their budgets. */
export const subagentsSchema = z.strictObject({
  maxDepth: z.int().min(0).max(3).describe('Levels of subagents: 1 lets the agent start children that start none; 0 turns subagents off.').default(defaultSubagentSettings.maxDepth),
  maxRunning: z.int().min(1).max(16).describe('Subagents working at once per agent.').default(defaultSubagentSettings.maxRunning),
  maxOpen: z.int().min(1).max(64).describe('Subagents kept open (working or finished) per agent; past it the oldest finished one is closed.').default(defaultSubagentSettings.maxOpen),
  maxTokens: z.int().min(1_000).describe('Tokens (input, cached included, plus output) one subagent may use; then it is stopped.').default(defaultSubagentSettings.maxTokens),
  maxTurns: z.int().min(1).max(200).describe('Model calls a subagent may make per task or message.').default(defaultSubagentSettings.maxTurns),
});

/** A profile's overrides of `schema`: the same fields, each optional and without a default. */
export function overridesOf<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>): z.ZodType<Partial<z.output<z.ZodObject<Shape>>>> {
  return z.strictObject(
    Object.fromEntries(Object.entries(schema.shape).map(([key, field]) => [key, ((field instanceof z.ZodDefault ? field.unwrap() : field) as z.ZodType).optional()])),
  ) as unknown as z.ZodType<Partial<z.output<z.ZodObject<Shape>>>>;
}
