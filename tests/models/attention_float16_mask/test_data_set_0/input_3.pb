
B	attn_maskJü¶p4¥:Øºy·:Ù5«¹¬2