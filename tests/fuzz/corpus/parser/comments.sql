/* c */ SELECT 1 -- x
 + /* y */ 2 -- end