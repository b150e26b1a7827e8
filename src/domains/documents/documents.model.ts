/** Decisions B§5.7: the document types. */
export const DOCUMENT_TYPES = [
  'PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID', 'PROOF_OF_ADDRESS', 'BANK_STATEMENT', 'TAX_RETURN', 'CERTIFICATE_OF_INCORPORATION',
  'ARTICLES_OF_INCORPORATION', 'ARTICLES_OF_ASSOCIATION', 'STATE_REGISTRY_EXCERPT', 'GOOD_STANDING_CERTIFICATE', 'INFORMATION_STATEMENT',
  'INCUMBENCY_CERTIFICATE', 'BUSINESS_LICENSE', 'SHAREHOLDER_REGISTER', 'POWER_OF_ATTORNEY', 'UTILITY_BILL', 'ELECTRICITY_BILL',
  'RENT_OR_LEASE_AGREEMENT', 'DIRECTOR_REGISTRY', 'TRUST_AGREEMENT', 'STATE_COMPANY_REGISTRY', 'PARTNERSHIP_CONTROL_AGREEMENT',
  'PARTNERSHIP_AGREEMENT', 'SELFIE', 'OTHER',
] as const;

/** Spec "Document": identity documents carry documentNumber and issuingAuthority. */
export const IDENTITY_DOCUMENT_TYPES = new Set<string>(['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID']);
/** Spec "Document": one upload per side. */
export const TWO_SIDED_DOCUMENT_TYPES = new Set<string>(['DRIVERS_LICENSE', 'NATIONAL_ID']);
export const SIDES = ['FRONT', 'BACK'] as const;

/** Spec "Limits": PDF, JPEG, PNG; decided from the bytes, never from the declared type or the name. */
export const ACCEPTED_MIME_TYPES = new Set(['application/pdf', 'image/jpeg', 'image/png']);

/** Decision A18 (sandbox rule for "all four corners, in focus and in colour"). */
export const MIN_SHORT_SIDE_PX = 600;

export type ImageProblem = 'NOT_IN_COLOUR' | 'TOO_SMALL' | 'UNREADABLE';

export interface ImageFacts {
  width: number;
  height: number;
  /** Share of sampled pixels whose channels differ visibly (0..1). */
  colourfulShare: number;
}

/** Below this share of visibly coloured pixels, a photo counts as grayscale. */
export const MIN_COLOURFUL_SHARE = 0.005;

/** Decision A18, as a pure rule: grayscale, or shorter side under 600 px, is unusable. */
export function imageProblem(f: ImageFacts): ImageProblem | undefined {
  if (Math.min(f.width, f.height) < MIN_SHORT_SIDE_PX) return 'TOO_SMALL';
  if (f.colourfulShare < MIN_COLOURFUL_SHARE) return 'NOT_IN_COLOUR';
  return undefined;
}

export const IMAGE_PROBLEM_MESSAGES: Record<ImageProblem, string> = {
  TOO_SMALL: `The photo is not legible: its shorter side is under ${MIN_SHORT_SIDE_PX} px.`,
  NOT_IN_COLOUR: 'The photo is not in colour.',
  UNREADABLE: 'The image cannot be decoded.',
};
