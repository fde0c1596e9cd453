/**
 * Base asset → market id, from one `listMarkets` read shared by every asset asked at the same time.
 * The polling feed and the replay pump both address markets by asset and the API by id.
 */
import type { Exchange } from '../api/exchange.js';
import type { Market } from '../api/types.js';
import { PropbotError } from '../core/errors.js';

/** No listed market has the asked base asset. */
export class UnknownAssetError extends PropbotError {
  readonly asset: string;
  constructor(asset: string, known: readonly string[]) {
    super('unknown_asset', `no market has baseAsset "${asset}"; listed: ${known.length > 0 ? known.join(', ') : '(none)'}`);
    this.asset = asset;
  }
}

export class MarketIds {
  readonly #exchange: Pick<Exchange, 'listMarkets'>;
  readonly #ids = new Map<string, string>();
  #listing: Promise<Market[]> | undefined;

  constructor(exchange: Pick<Exchange, 'listMarkets'>) {
    this.#exchange = exchange;
  }

  async of(asset: string): Promise<string> {
    const known = this.#ids.get(asset);
    if (known !== undefined) return known;
    // Concurrent first reads of several assets share one listing request.
    this.#listing ??= this.#exchange.listMarkets().finally(() => {
      this.#listing = undefined;
    });
    const markets = await this.#listing;
    for (const market of markets) this.#ids.set(market.config.baseAsset, market.id);
    const id = this.#ids.get(asset);
    if (id === undefined) throw new UnknownAssetError(asset, markets.map((m) => m.config.baseAsset));
    return id;
  }

  /** Drop a cached id (a relisted market gets a new one): the next `of` lists again. */
  forget(asset: string): void {
    this.#ids.delete(asset);
  }
}
