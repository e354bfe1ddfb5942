import { useStore } from '@nanostores/react';
import { useState } from 'react';
import { $selectedColor } from './product.store';

export interface GalleryImage {
  src: string;
  width: number;
  height: number;
  alt: string;
}

interface Props {
  images: GalleryImage[];
  /** Picture per colour value, for products with colours. */
  colorImages: Record<string, GalleryImage>;
}

/** The product's pictures: a main image and thumbnails; choosing a colour shows that colour. */
export default function ProductGallery({ images, colorImages }: Props) {
  const color = useStore($selectedColor);
  const [active, setActive] = useState(0);
  // A colour's picture may also be one of the main pictures: show each picture once.
  const all = [...images, ...Object.values(colorImages)].filter((img, i, list) => list.findIndex((o) => o.src === img.src) === i);
  const colorImage = color ? colorImages[color] : undefined;
  const main = colorImage ?? all[active] ?? images[0];
  if (!main) return null;

  return (
    <div className="gallery">
      <div className="gallery-main">
        <img src={main.src} width={main.width} height={main.height} alt={main.alt} fetchPriority="high" />
      </div>
      <ul className="gallery-thumbs" aria-label="Product images">
        {all.map((img, i) => (
          <li key={img.src}>
            <button
              type="button"
              aria-pressed={img.src === main.src}
              onClick={() => {
                setActive(i);
                $selectedColor.set(null);
              }}
            >
              <img src={img.src} width={72} height={72} alt="" loading="lazy" />
              <span className="visually-hidden">
                Show image {i + 1}: {img.alt}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
