import { ACCEPTED_MIME_TYPES, imageProblem, type ImageProblem } from './documents.model.js';
// Loaded on the first upload only (start-up time): file-type and sharp are needed by document uploads alone.
const fileType = () => import('file-type');
const loadSharp = async () => (await import('sharp')).default;

/** The file's real type from its bytes (magic numbers); undefined when it is not a PDF, JPEG or PNG. */
export async function sniffDocumentType(bytes: Buffer): Promise<string | undefined> {
  const detected = await (await fileType()).fileTypeFromBuffer(bytes);
  return detected && ACCEPTED_MIME_TYPES.has(detected.mime) ? detected.mime : undefined;
}

/** A channel spread above this (0-255) is a visibly coloured pixel. */
const COLOUR_SPREAD = 24;
/** Images are downsampled to at most this many pixels a side before the colour check. */
const SAMPLE_SIDE = 128;
/** Refuse decompression bombs: at most this many pixels are decoded. */
const MAX_INPUT_PIXELS = 100_000_000;

/** Decision A18 applied to an image's pixels; PDFs are not inspected. */
export async function inspectImage(bytes: Buffer): Promise<ImageProblem | undefined> {
  const sharp = await loadSharp();
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' });
    const meta = await image.metadata();
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    if (!width || !height) return 'UNREADABLE';
    if ((meta.channels ?? 3) < 3 || meta.space === 'b-w') return imageProblem({ width, height, colourfulShare: 0 });
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
      .resize(SAMPLE_SIDE, SAMPLE_SIDE, { fit: 'inside' })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    let colourful = 0;
    const pixels = info.width * info.height;
    for (let i = 0; i < data.length; i += info.channels) {
      const r = data[i]!, g = data[i + 1]!, b = data[i + 2]!;
      if (Math.max(r, g, b) - Math.min(r, g, b) > COLOUR_SPREAD) colourful++;
    }
    return imageProblem({ width, height, colourfulShare: pixels ? colourful / pixels : 0 });
  } catch {
    return 'UNREADABLE';
  }
}
