import { hasPatch } from '../runtime/patches';

/** The budget patches one run asks at their first use and keeps (was module state): held by the run's tree link. */
export class BudgetPatches {
  private readonly answers = new Map<string, boolean>();

  /** `hasPatch(patch)`, asked once per run. */
  has(patch: string): boolean {
    let answer = this.answers.get(patch);
    if (answer === undefined) {
      answer = hasPatch(patch);
      this.answers.set(patch, answer);
    }
    return answer;
  }
}
