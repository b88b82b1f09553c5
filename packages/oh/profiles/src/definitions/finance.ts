import type { PackDefinition } from '../pack.ts';

/** Finance: instruments, filings, reported metrics and corporate events. */
export const finance = {
  name: 'finance',
  version: '1.0.0',
  title: 'Finance',
  description:
    'Market and reporting facts: instruments (by ISIN or ticker), regulatory filings, metrics reported ' +
    'for a period as exact money amounts, and dated corporate events.',
  kinds: {
    instrument: {
      description: 'A traded security or index.',
      fields: {
        name: {
          codec: { type: 'text', maxLength: 300, minLength: 1 },
          required: true,
          description: 'Issuer and instrument name.',
        },
        type: {
          codec: {
            type: 'enum',
            values: ['equity', 'bond', 'fund', 'etf', 'option', 'future', 'index', 'other'],
          },
          required: true,
          description: 'Instrument class.',
        },
        isin: {
          codec: { type: 'text', maxLength: 12, pattern: '[A-Z]{2}[A-Z0-9]{9}[0-9]' },
          required: false,
          description: 'ISO 6166 ISIN.',
        },
        ticker: {
          codec: { type: 'text', maxLength: 16, pattern: '[A-Z0-9][A-Z0-9.\\-]*' },
          required: false,
          description: 'Exchange ticker.',
        },
        exchange: {
          codec: { type: 'text', maxLength: 4, pattern: '[A-Z0-9]{4}' },
          required: false,
          description: 'ISO 10383 MIC.',
        },
        currency: { codec: { type: 'currency' }, required: true, description: 'Trading currency.' },
      },
      relations: {},
    },
    filing: {
      description: 'A document filed with a regulator or published to investors.',
      fields: {
        instrument: {
          codec: { type: 'ref', kinds: ['instrument'] },
          required: true,
          description: 'The issuer’s instrument.',
        },
        form: {
          codec: { type: 'text', maxLength: 32, minLength: 1 },
          required: true,
          description: 'Form type, e.g. 10-K.',
        },
        date: { codec: { type: 'date', partial: false }, required: true, description: 'Filing date.' },
        url: { codec: { type: 'url' }, required: true, description: 'Where the filing is published.' },
        title: {
          codec: { type: 'text', maxLength: 500 },
          required: false,
          description: 'Title of the document.',
        },
      },
      relations: {
        filed_for: {
          to: ['instrument'],
          field: 'instrument',
          description: 'The filing concerns this instrument’s issuer.',
        },
      },
    },
    metric: {
      description: 'A reported figure for a period, as an exact money amount.',
      fields: {
        instrument: {
          codec: { type: 'ref', kinds: ['instrument'] },
          required: true,
          description: 'Whose figure it is.',
        },
        name: {
          codec: { type: 'text', maxLength: 200, minLength: 1 },
          required: true,
          description: 'What is measured, e.g. revenue.',
        },
        value: { codec: { type: 'money' }, required: true, description: 'The amount, with its currency.' },
        period: {
          codec: {
            type: 'object',
            fields: {
              start: {
                codec: { type: 'date', partial: false },
                required: true,
                description: 'First day of the period.',
              },
              end: {
                codec: { type: 'date', partial: false },
                required: true,
                description: 'Last day of the period.',
              },
              label: {
                codec: { type: 'text', maxLength: 32 },
                required: false,
                description: 'As reported, e.g. Q3 FY2024.',
              },
            },
          },
          required: true,
          description: 'The period the figure covers.',
        },
        filing: {
          codec: { type: 'ref', kinds: ['filing'] },
          required: false,
          description: 'The filing it is reported in.',
        },
      },
      relations: {
        metric_of: {
          to: ['instrument'],
          field: 'instrument',
          description: 'The figure is reported for this instrument’s issuer.',
        },
        reported_in: {
          to: ['filing'],
          field: 'filing',
          description: 'The figure is taken from this filing.',
        },
      },
    },
    event: {
      description: 'A dated corporate or market event.',
      fields: {
        instrument: {
          codec: { type: 'ref', kinds: ['instrument'] },
          required: true,
          description: 'The instrument concerned.',
        },
        date: {
          codec: { type: 'date', partial: false },
          required: true,
          description: 'When it happened or takes effect.',
        },
        type: {
          codec: {
            type: 'enum',
            values: [
              'earnings',
              'dividend',
              'split',
              'merger',
              'acquisition',
              'listing',
              'delisting',
              'guidance',
              'rating-change',
              'management-change',
              'other',
            ],
          },
          required: true,
          description: 'What kind of event.',
        },
        description: {
          codec: { type: 'text', maxLength: 2000 },
          required: false,
          description: 'What happened.',
        },
        amount: {
          codec: { type: 'money' },
          required: false,
          description: 'An amount that goes with it, e.g. a dividend per share.',
        },
        filing: {
          codec: { type: 'ref', kinds: ['filing'] },
          required: false,
          description: 'The filing that announced it.',
        },
      },
      relations: {
        concerns: {
          to: ['instrument'],
          field: 'instrument',
          description: 'The event concerns this instrument.',
        },
        announced_in: {
          to: ['filing'],
          field: 'filing',
          description: 'The event was announced in this filing.',
        },
      },
    },
  },
  example: {
    kind: 'metric',
    fields: {
      instrument: 'instrument:us0378331005',
      name: 'revenue',
      value: { amount: '94930000000.00', currency: 'USD' },
      period: { start: '2024-06-30', end: '2024-09-28', label: 'Q4 FY2024' },
      filing: 'filing:aapl-10-k-2024',
    },
  },
} satisfies PackDefinition;
