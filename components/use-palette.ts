/** The palette tai's chrome is drawn in (src/core/panel/colors.ts), given by the Cockpit from the board's NO_COLOR setting. */
import { createContext, useContext } from 'react';
import { COLOR_PALETTE, type Palette } from '../src/core/panel/colors.js';

/** The palette in effect below a provider; coloured when none is given (a host's box). */
export const PaletteContext = createContext<Palette>(COLOR_PALETTE);

/** The palette in effect. */
export function usePalette(): Palette {
  return useContext(PaletteContext);
}
