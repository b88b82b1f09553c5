import type { PackDefinition } from '../pack.ts';

/** Language: terms, their senses, translations of senses, and usage examples. */
export const language = {
  name: 'language',
  version: '1.0.0',
  title: 'Language',
  description:
    'Lexical knowledge: terms in a language, the senses they carry, translations of a sense into other ' +
    'languages, and examples of usage. Languages are BCP 47 tags.',
  kinds: {
    term: {
      description: 'A word or fixed phrase in one language.',
      fields: {
        lemma: {
          codec: { type: 'text', maxLength: 200, minLength: 1 },
          required: true,
          description: 'Dictionary form.',
        },
        language: { codec: { type: 'language' }, required: true, description: 'Language of the term.' },
        partOfSpeech: {
          codec: {
            type: 'enum',
            values: [
              'noun',
              'verb',
              'adjective',
              'adverb',
              'pronoun',
              'preposition',
              'conjunction',
              'interjection',
              'determiner',
              'numeral',
              'particle',
              'phrase',
              'other',
            ],
          },
          required: false,
          description: 'Grammatical category.',
        },
        pronunciation: {
          codec: { type: 'text', maxLength: 200 },
          required: false,
          description: 'IPA transcription.',
        },
        forms: {
          codec: { type: 'list', of: { type: 'text', maxLength: 200 }, maxItems: 50, unique: true },
          required: false,
          description: 'Inflected or variant spellings.',
        },
      },
      relations: {},
    },
    sense: {
      description: 'One meaning of a term.',
      fields: {
        term: {
          codec: { type: 'ref', kinds: ['term'] },
          required: true,
          description: 'The term that has this sense.',
        },
        definition: {
          codec: { type: 'text', maxLength: 2000, minLength: 1 },
          required: true,
          description: 'What it means.',
        },
        definitionLanguage: {
          codec: { type: 'language' },
          required: false,
          description: 'Language the definition is written in.',
        },
        register: {
          codec: {
            type: 'enum',
            values: ['neutral', 'formal', 'informal', 'slang', 'technical', 'archaic', 'offensive'],
          },
          required: false,
          description: 'Register or style.',
        },
        domain: {
          codec: { type: 'text', maxLength: 100 },
          required: false,
          description: 'Subject field, e.g. law.',
        },
      },
      relations: {
        sense_of: { to: ['term'], field: 'term', description: 'The sense belongs to this term.' },
      },
    },
    translation: {
      description: 'A rendering of a sense in another language.',
      fields: {
        sense: {
          codec: { type: 'ref', kinds: ['sense'] },
          required: true,
          description: 'The sense translated.',
        },
        language: { codec: { type: 'language' }, required: true, description: 'Target language.' },
        text: {
          codec: { type: 'text', maxLength: 500, minLength: 1 },
          required: true,
          description: 'The translation.',
        },
        equivalence: {
          codec: { type: 'enum', values: ['exact', 'near', 'partial', 'descriptive'] },
          required: false,
          description: 'How closely it matches the sense.',
        },
        note: { codec: { type: 'text', maxLength: 1000 }, required: false, description: 'Usage notes.' },
      },
      relations: {
        translates: { to: ['sense'], field: 'sense', description: 'The translation renders this sense.' },
      },
    },
    'usage-example': {
      description: 'A sentence or phrase showing a sense in use.',
      fields: {
        sense: {
          codec: { type: 'ref', kinds: ['sense'] },
          required: true,
          description: 'The sense illustrated.',
        },
        text: {
          codec: { type: 'text', maxLength: 1000, minLength: 1 },
          required: true,
          description: 'The example.',
        },
        language: { codec: { type: 'language' }, required: true, description: 'Language of the example.' },
        gloss: {
          codec: { type: 'text', maxLength: 1000 },
          required: false,
          description: 'A translation of the example.',
        },
        source: {
          codec: { type: 'text', maxLength: 300 },
          required: false,
          description: 'Where it is quoted from.',
        },
        url: { codec: { type: 'url' }, required: false, description: 'Link to the source.' },
        date: { codec: { type: 'date' }, required: false, description: 'When the source was written.' },
      },
      relations: {
        illustrates: { to: ['sense'], field: 'sense', description: 'The example shows this sense in use.' },
      },
    },
  },
  example: {
    kind: 'translation',
    fields: {
      sense: 'sense:schadenfreude-1',
      language: 'en-GB',
      text: 'malicious joy',
      equivalence: 'near',
      note: 'English usually borrows the German word.',
    },
  },
} satisfies PackDefinition;
