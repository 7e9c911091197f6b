"""JD.com's stock and price-list endpoints: a real stock answer, the documented price list, failure shapes."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import FIXTURES, raw_document

from scrapers.errors import BlockedError, ParseError
from scrapers.retail.jd import JdStock

RETAIL = FIXTURES / "retail"


def jd(body: bytes, gpu: str = "NVIDIA RTX 4090 24GB"):
    source = JdStock(items=[{"sku": "100004770235", "gpu": gpu}], area="1_72_4137_0")
    return source.parse([raw_document(body, "https://c0.3.cn/stock?skuId=100004770235")])


def test_jd_stock_price_is_cny_whatever_the_glyph():
    real = (RETAIL / "jd" / "jd_c0_3_cn_stock_sku100004770235.json").read_bytes()
    [offer] = jd(real)
    assert (offer.price, offer.currency, offer.in_stock, offer.gpu_id) == (Decimal("5499.00"), "CNY", True, "rtx-4090-24gb")
    [wrapped] = jd(b"jQuery123(" + real + b");")
    assert wrapped.price == offer.price


def test_jd_failure_shapes():
    with pytest.raises(BlockedError):
        jd(b'{"error":"pdos_captcha"}')
    assert jd(b'{"stock": {"skuId": 100004770235, "jdPrice": {"p": "-1.00", "m": "9999.00"}}}') == []
    with pytest.raises(ParseError):
        jd(b'[{"p": "5499.00"}]')
    [labelled_wrong] = jd((RETAIL / "jd" / "jd_c0_3_cn_stock_sku100004770235.json").read_bytes(), gpu="iPhone 11")
    assert labelled_wrong.reject_reason.startswith("watch-list label is not a GPU card")


def test_jd_price_list_endpoint_answers_every_sku_at_once():
    # the documented example answer of p.3.cn/prices/mgets (no real capture exists: the file name says so)
    body = (RETAIL / "jd" / "documented_format_p3cn_prices_mgets.json").read_bytes()
    source = JdStock(items=[{"sku": "100004770235", "gpu": "RTX 4090 24GB"}, {"sku": "100000000002", "gpu": "RTX 5090"}],
                     endpoint="prices")
    assert source.prices_url() == "https://p.3.cn/prices/mgets?skuIds=J_100004770235%2CJ_100000000002"
    [offer] = source.parse([raw_document(body, source.prices_url())])
    assert (offer.offer_id, offer.price, offer.currency, offer.in_stock) == ("100004770235", Decimal("5499.00"), "CNY",
                                                                            None)  # the price list says nothing of stock
    off_shelf = b'[{"p":"-1.00","op":"5499.00","m":"9999.00","id":"J_100004770235"}]'
    assert source.parse([raw_document(off_shelf)]) == []
    with pytest.raises(BlockedError):
        source.parse([raw_document(b'{"error":"pdos_captcha"}')])
