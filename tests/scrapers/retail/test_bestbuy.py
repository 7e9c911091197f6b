"""Best Buy: search and product pages (real 2020 and current layouts) and the Products API (`bestbuy-api`)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import FIXTURES, raw_document, retail_page

from scrapers.errors import ParseError

RETAIL = FIXTURES / "retail"


def bestbuy(name: str, url: str = "https://www.bestbuy.com/site/searchpage.jsp?st=rtx+3080"):
    from scrapers.retail.bestbuy import BestBuyPages

    return BestBuyPages(pages=[]).parse([raw_document(retail_page("bestbuy", name).read_bytes(), url)])


def test_bestbuy_2020_search_first_span_is_the_price_and_prebuilts_are_set_aside():
    offers = {o.offer_id: o for o in bestbuy("bestbuy_search_rtx3080_2020.html")}
    assert len(offers) == 24
    card = offers["6432400"]
    assert card.title == "EVGA - GeForce RTX 3080 XC3 ULTRA GAMING 10GB GDDR6 PCI Express 4.0 Graphics Card"
    assert (card.price, card.in_stock, card.reject_reason) == (Decimal("769.99"), False, None)
    assert card.url.endswith("/6432400.p")
    assert offers["6435037"].reject_reason == "prebuilt PC"  # a Corsair desktop in a GPU search


def test_bestbuy_current_layout_doubled_price_text_and_product_pages():
    charger = {o.offer_id: o for o in bestbuy("bestbuy_search_portable_charger_recent.html")}
    assert charger["6644753"].price == Decimal("59.99")  # "$59.99$59.99"
    sold_out = bestbuy("bestbuy_product_evga_rtx3080_soldout_2020.html",
                       "https://www.bestbuy.com/site/evga/6432400.p?skuId=6432400")
    assert [(o.offer_id, o.price, o.in_stock) for o in sold_out] == [("6432400", Decimal("769.99"), False)]
    in_stock = bestbuy("bestbuy_product_xfx_rx580_instock_2020.html",
                       "https://www.bestbuy.com/site/xfx/6342905.p?skuId=6342905")
    assert (in_stock[0].price, in_stock[0].in_stock) == (Decimal("229.99"), True)
    no_json_ld = bestbuy("bestbuy_product_anker_powerbank_recent.html",
                         "https://www.bestbuy.com/site/anker/6644753.p?skuId=6644753")
    assert no_json_ld[0].price == Decimal("59.99")


def test_bestbuy_api_sale_and_regular_prices_and_its_key(monkeypatch):
    from scrapers.errors import MissingCredentials
    from scrapers.retail.bestbuy import BestBuyApi

    body = (RETAIL / "bestbuy" / "bestbuy_api_v1_products_search_SUSPECT_handwritten.json").read_bytes()
    offers = {o.offer_id: o for o in BestBuyApi(queries=[]).parse([raw_document(body)])}
    assert (offers["6447382"].price, offers["6447382#list"].price) == (Decimal("129.99"), Decimal("149.99"))
    assert offers["6447382#list"].price_role == "list"
    with pytest.raises(ParseError):
        BestBuyApi(queries=[]).parse([raw_document(b'{"errorCode": "403", "errorMessage": "Invalid API key"}')])
    monkeypatch.delenv("BESTBUY_API_KEY", raising=False)
    with pytest.raises(MissingCredentials, match="BESTBUY_API_KEY"):
        BestBuyApi(queries=["rtx 4090"]).require_key()
