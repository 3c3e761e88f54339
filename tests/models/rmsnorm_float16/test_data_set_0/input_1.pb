
BscaleJ;º@´"·z:A#s:¤1ß²