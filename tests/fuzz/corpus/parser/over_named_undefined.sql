SELECT order_id, user, product, num FROM (SELECT *, ROW_NUMBER() OVER um FROM Orders) WHERE row_num = 1
