
	int8_conv8
XXq"Int8Quantize*
Y_scale
×£<*
Y_zero_point€^
Xq
W
BYq"Int8Conv*

kernel*
pad*
order"NHWC*
Y_scaleÍÌL=*
Y_zero_pointn
YqY"Int8Dequantize:X:W:BBY