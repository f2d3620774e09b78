// The first run's state: what was skipped or dismissed, which agents this machine has, and the
// facts each step's state is read from, loaded together and kept while the window lives. Set up
// runs `hark setup` through the same command as Settings → Agents.
import * as api from '../api';
import type { HarkError } from '../errors';
import type { AgentSetupDone, AgentsView, FirstRunRecord, FirstRunStep, FoundAgent, PhoneView, SettingsView, SetupAgent } from '../types';
import { allSteps, isOffered, withSkip, type FirstRunFacts, type StepState } from './firstRun';

export type FirstRunApi = Pick<typeof api, 'firstRun' | 'saveFirstRun' | 'agentSetups' | 'setupAgent' | 'phoneSettings'>;

export class FirstRun {
  record: FirstRunRecord | null = $state(null);
  found: FoundAgent[] = $state.raw([]);
  agents: AgentsView | null = $state.raw(null);
  phone: PhoneView | null = $state.raw(null);
  /** Why the record or a step's facts could not be read or kept. */
  error: HarkError | null = $state(null);
  /** The agent being set up: one at a time, as in Settings. */
  busy: SetupAgent | null = $state(null);
  /** Each agent's last Set up from here: what it did to each file, and what comes next. */
  done: Partial<Record<SetupAgent, AgentSetupDone>> = $state({});
  failed: Partial<Record<SetupAgent, HarkError>> = $state({});

  constructor(
    private readonly settings: () => SettingsView | null,
    private readonly io: FirstRunApi = api,
  ) {}

  private facts(): FirstRunFacts | null {
    if (!this.record) return null;
    return { record: this.record, found: this.found, agents: this.agents, phone: this.phone, settings: this.settings() };
  }

  get steps(): StepState[] {
    const facts = this.facts();
    return facts ? allSteps(facts) : [];
  }

  /** Offered on launch and in the sidebar until everything is done or skipped, or it is dismissed. */
  get offered(): boolean {
    const facts = this.facts();
    return facts !== null && isOffered(facts);
  }

  /** Reads the record, the agents found, their setup and the phone, together. */
  async load(): Promise<void> {
    const [run, agents, phone] = await Promise.all([this.io.firstRun(), this.io.agentSetups(), this.io.phoneSettings()]);
    this.error = null;
    if (run.ok) {
      this.record = run.value.record;
      this.found = run.value.agents;
      // The record could not be read: offered as new, and why is said (the next skip replaces it).
      this.error = run.value.record_error;
    } else this.error = run.error;
    if (agents.ok) this.agents = agents.value;
    else this.error ??= agents.error;
    if (phone.ok) this.phone = phone.value;
    else this.error ??= phone.error;
  }

  async setUp(agent: SetupAgent): Promise<void> {
    if (this.busy) return;
    this.busy = agent;
    delete this.done[agent];
    delete this.failed[agent];
    const r = await this.io.setupAgent(agent, 'setup');
    this.busy = null;
    if (r.ok) {
      this.agents = r.value.view;
      this.done[agent] = r.value;
    } else this.failed[agent] = r.error;
  }

  private async keep(record: FirstRunRecord): Promise<void> {
    const r = await this.io.saveFirstRun(record);
    if (r.ok) {
      this.record = r.value;
      this.error = null;
    } else this.error = r.error;
  }

  async skip(step: FirstRunStep, skip = true): Promise<void> {
    if (this.record) await this.keep(withSkip(this.record, step, skip));
  }

  /** "Don't show this again": no longer offered on launch or in the sidebar. */
  async dismiss(): Promise<void> {
    if (this.record) await this.keep({ ...this.record, dismissed: true });
  }
}
