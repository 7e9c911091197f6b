{# Whether a network between nodes is a fabric a training job spans (RDMA: InfiniBand, RoCE, AWS EFA): plain Ethernet
   is the nodes' ordinary network. The one list of them: int_gpu_clusters__daily (a GPU's scale-out network from its
   offers) and gpu_cluster_prices_daily (an offer that rents a cluster) read it. #}
{% macro is_cluster_fabric(network) -%}
    {{ network }} in ('infiniband', 'roce', 'efa')
{%- endmacro %}
