
int8_fc8
XXq"Int8Quantize*
Y_scale
×#=*
Y_zero_point€8
Xq
W
BYq"Int8FC*
Y_scaleìQ¸=*
Y_zero_pointi
YqY"Int8Dequantize:X:W:BBY