/** Loads a scenario JSON file with errors that name the file and the problem. */
import { readFile } from 'node:fs/promises';
import { parseScenario, ScenarioValidationError, type Scenario } from './scenario-schema';

export async function loadScenarioFile(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScenarioValidationError(`cannot read scenario file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ScenarioValidationError(`scenario file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  try {
    return parseScenario(json);
  } catch (error) {
    throw new ScenarioValidationError(`scenario file ${path}: ${(error as Error).message}`);
  }
}
