export const meta = {
  name: 'review',
  description: 'Review a repository: one reader per top-level folder, an adversarial checker per finding, a report.',
  whenToUse:
    'A broad review of a whole repository. args: { folders: ["src", "test", ...] } (the top-level folders to read).',
  phases: [
    { title: 'Read', detail: 'one reader per folder lists findings' },
    { title: 'Check', detail: 'an adversarial checker per finding confirms or refutes it' },
    { title: 'Synthesize', detail: 'one agent writes the report from the confirmed findings' },
  ],
};

// The script cannot list the file system: the caller names the folders, else these.
const defaultFolders = ['src', 'test', 'docs'];
const maxFindingsPerFolder = 3;

const verdictSchema = {
  type: 'object',
  properties: {
    finding: { type: 'string', description: 'the finding, as given' },
    verdict: { enum: ['confirmed', 'refuted'] },
    reason: { type: 'string', description: 'one sentence: the evidence' },
  },
  required: ['finding', 'verdict', 'reason'],
};

const folders =
  args && Array.isArray(args.folders) && args.folders.length > 0 ? args.folders.map(String) : defaultFolders;

phase('Read');
log(`Reading ${folders.length} folder(s): ${folders.join(', ')}`);
const readings = await parallel(
  folders.map(
    (folder) => () =>
      agent(
        `You are reviewing the folder ${folder}/ of this repository. Look at its files and list up to ` +
          `${maxFindingsPerFolder} concrete findings worth a second look (for example a source file without tests). ` +
          'Write one finding per line, starting with "- " and naming the file. ' +
          'If there is nothing worth reporting, answer "No findings."',
        { label: `read ${folder}`, agentType: 'Explore' },
      ),
  ),
);
// A reader that failed or was stopped resolves to null: its folder simply has no findings.
const findings = readings.flatMap((text) =>
  typeof text === 'string'
    ? text
        .split('\n')
        .filter((line) => line.startsWith('- '))
        .map((line) => line.slice(2).trim())
        .slice(0, maxFindingsPerFolder)
    : [],
);
log(`${findings.length} finding(s) to check`);

phase('Check');
const verdicts = await pipeline(findings, (finding, _item, index) =>
  agent(
    'You are an adversarial checker. Try to refute this finding about the repository; confirm it only if the ' +
      `code supports it.\nFinding: ${finding}\n` +
      'Answer with the finding, your verdict (confirmed or refuted) and a one-sentence reason.',
    { label: `check ${index + 1}`, schema: verdictSchema },
  ),
);
const confirmed = verdicts.filter((verdict) => verdict && verdict.verdict === 'confirmed');
const refuted = verdicts.filter((verdict) => verdict && verdict.verdict === 'refuted');
log(
  `${confirmed.length} confirmed, ${refuted.length} refuted, ${findings.length - confirmed.length - refuted.length} unchecked`,
);

phase('Synthesize');
const report = await agent(
  'Write a short review report of this repository from these confirmed findings, grouped by folder ' +
    '(one line each, with the evidence):\n' +
    (confirmed.length > 0
      ? confirmed.map((verdict) => `- ${verdict.finding} (${verdict.reason})`).join('\n')
      : '(no finding was confirmed)'),
  { label: 'synthesize' },
);

return {
  report: report ?? '(the synthesis agent did not answer)',
  confirmed: confirmed.length,
  refuted: refuted.length,
};
